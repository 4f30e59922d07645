// The console's only ways out: the read API (POST /graphql, the SSE subscription) and, for operator
// actions, /admin/* with the bearer token the operator typed in (kept for this tab only).

export async function gql(query, variables = {}) {
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join('; '));
  return body.data;
}

/** Subscribe over SSE (GET /graphql, text/event-stream); returns a function that closes it. */
export function subscribe(query, variables, onData, onState) {
  const url = `/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify(variables))}`;
  const es = new EventSource(url);
  es.addEventListener('next', (e) => {
    try {
      const msg = JSON.parse(e.data);
      if (msg.data) onData(msg.data);
    } catch {
      /* not a result */
    }
  });
  es.onopen = () => onState('live');
  es.onerror = () => onState(es.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
  return () => es.close();
}

const TOKEN_KEY = 'msgx.adminToken';
const OPERATOR_KEY = 'msgx.operator';
export const adminAuth = {
  token: () => sessionStorage.getItem(TOKEN_KEY) || '',
  operator: () => sessionStorage.getItem(OPERATOR_KEY) || '',
  set(token, operator) {
    sessionStorage.setItem(TOKEN_KEY, token);
    sessionStorage.setItem(OPERATOR_KEY, operator);
  },
};

export async function admin(action, body = {}) {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${adminAuth.token()}` };
  if (adminAuth.operator()) headers['x-msgx-operator'] = adminAuth.operator();
  const res = await fetch(`/admin/${action}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const out = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(out.error || `HTTP ${res.status}`);
  return out;
}
