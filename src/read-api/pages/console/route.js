// Hash routes, each view a bookmarkable URL: #/board/2025-03-14?status=delayed, #/flight/880002,
// #/message/60, #/messages?states=PARKED, #/pipeline.

export function route() {
  const [path, query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [tab, arg] = path.split('/');
  return { tab: tab || 'pipeline', arg: arg ? decodeURIComponent(arg) : '', query };
}

export const hashQuery = () => Object.fromEntries(new URLSearchParams(route().query));

/** Change some of the URL's query (empty values drop out) without a new history entry. */
export function setHashQuery(changes) {
  const q = new URLSearchParams(route().query);
  for (const [k, v] of Object.entries(changes)) {
    if (v === '' || v === null || v === undefined) q.delete(k);
    else q.set(k, v);
  }
  const { tab, arg } = route();
  const s = q.toString();
  location.replace(`#/${tab}${arg ? `/${encodeURIComponent(arg)}` : ''}${s ? `?${s}` : ''}`);
}

export const go = (tab, arg, query) => (location.hash = `#/${tab}${arg ? `/${encodeURIComponent(arg)}` : ''}${query ? `?${query}` : ''}`);
