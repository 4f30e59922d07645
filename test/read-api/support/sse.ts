/** A minimal GraphQL-over-SSE client for tests: yields each `next` payload. */
export interface SseSubscription {
  next(): Promise<any>;
  close(): void;
}

export function subscribeSse(url: string, query: string, variables: Record<string, unknown> = {}): SseSubscription {
  const abort = new AbortController();
  // Headers may only come with the first event: don't wait for the response here.
  const reader = fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query, variables }),
    signal: abort.signal,
  }).then(async (res) => {
    if (res.status !== 200 || !res.body) throw new Error(`SSE subscribe failed: ${res.status} ${await res.text()}`);
    return res.body.pipeThrough(new TextDecoderStream()).getReader();
  });
  reader.catch(() => undefined); // observed by next()
  let buffer = '';
  const queue: any[] = [];
  return {
    async next() {
      for (;;) {
        if (queue.length > 0) return queue.shift();
        const sep = buffer.indexOf('\n\n');
        if (sep >= 0) {
          const block = buffer.slice(0, sep);
          buffer = buffer.slice(sep + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
          if (event === 'next' && data) queue.push(JSON.parse(data));
          if (event === 'complete') throw new Error('subscription completed');
          continue;
        }
        const { value, done } = await (await reader).read();
        if (done) throw new Error('SSE stream ended');
        buffer += value;
      }
    },
    close: () => abort.abort(),
  };
}
