/**
 * fast-check arbitraries for XML texts: well-formed documents (odd but legal spellings: comments
 * inside text, CDATA, PIs, entities and character references, CRLF, tabs, quotes, prototype-key
 * names, namespaces, CJK) and mutations of them (which mostly are not well-formed).
 */
import fc from 'fast-check';

const names = fc.constantFrom('MSG', 'META', 'FLOP', 'A', 'b', 'x.y-z', 'xi:include', '_u', '延误', 'constructor', '__proto__', 'toString', 'prototype', 'É1');
const space = fc.constantFrom('', ' ', '\n', '\t', '\r\n', '  \r ');
const someSpace = fc.constantFrom(' ', '\n', '\t', '\r\n', ' \t ');
const textPiece = fc.constantFrom(
  'x', ' 1 ', 'AT', '延误', '&amp;', '&lt;', '&gt;', '&quot;', '&apos;', '&#20013;', '&#x56FD;', '&#32;',
  '&amp;lt;', '>', ']]>', '"', "'", '\u00a0', '\ufeff', '\r\n', '\r', '\t', 'a\r\nb',
);
const text = fc.array(textPiece, { maxLength: 4 }).map((ps) => ps.join(''));
const attrValue = fc.array(fc.constantFrom('v', ' ', '&amp;', '&#x41;', '>', '\t', '\n', '\r\n', '延', '/', '?>'), { maxLength: 4 })
  .map((ps) => ps.join(''));
const attr = fc.tuple(fc.constantFrom('A', 'b', 'xmlns:xi', 'CODE', 'constructor', 'valueOf', 'x-y'), space, space, fc.boolean(), attrValue)
  .map(([n, s1, s2, dq, v]) => ({ name: n, xml: `${n}${s1}=${s2}${dq ? `"${v.replaceAll('"', '')}"` : `'${v.replaceAll("'", '')}'`}` }));
const attrs = fc.uniqueArray(attr, { selector: (a) => a.name, maxLength: 3 })
  .chain((as) => fc.tuple(fc.constant(as), fc.array(someSpace, { minLength: as.length, maxLength: as.length }), space))
  .map(([as, spaces, tail]) => as.map((a, i) => `${spaces[i]}${a.xml}`).join('') + tail);
const misc = fc.constantFrom('<!-- c -->', '<!---->', '<!-- a > b & c -->', '<?pi x="?" y?>', '<?xml-stylesheet href="a"?>', '<?p?>');
const cdata = fc.constantFrom('<![CDATA[]]>', '<![CDATA[ a <b> & c ]]>', '<![CDATA[\r\n x ]]>');

const element: fc.Memo<string> = fc.memo((depth) => {
  const leaf = fc.tuple(names, attrs, fc.boolean(), text).map(([n, a, selfClose, t]) =>
    (selfClose ? `<${n}${a}/>` : `<${n}${a}>${t}</${n}>`));
  if (depth <= 1) return leaf;
  const content = fc.array(fc.oneof({ weight: 3, arbitrary: element(depth - 1) }, text, misc, cdata), { maxLength: 5 });
  return fc.oneof(leaf, fc.tuple(names, attrs, content, space).map(([n, a, c, s]) => `<${n}${a}>${c.join('')}</${n}${s}>`));
});

/** A well-formed document. */
export const wellFormedXml = fc.tuple(
  fc.constantFrom('', '\uFEFF'),
  fc.constantFrom('', '<?xml version="1.0" encoding="UTF-8"?>', "<?xml version='1.0'?>\r\n"),
  fc.array(fc.oneof(misc, someSpace), { maxLength: 2 }),
  element(4),
  fc.array(fc.oneof(misc, someSpace), { maxLength: 2 }),
).map(([bom, decl, before, root, after]) => `${bom}${decl}${before.join('')}${root}${after.join('')}`);

const edit = fc.oneof(
  fc.record({ at: fc.nat(), del: fc.integer({ min: 0, max: 6 }), ins: fc.constantFrom(
    '', '<', '>', '/', '/>', '&', '&;', '"', "'", '=', ' ', '<!', '<!X>', '<![X[', '<?', '<?xml?>', '?>', '-->', '<!--', ']]>', '</A>', '<A>',
    '</A/>', '&amp;', 'x', '\uFEFF', '\u00a0', '\r',
  ) }),
);

/** A well-formed document with a few small edits. */
export const mutatedXml = fc.tuple(wellFormedXml, fc.array(edit, { minLength: 1, maxLength: 3 })).map(([xml, edits]) =>
  edits.reduce((s, e) => {
    const at = e.at % (s.length + 1);
    return s.slice(0, at) + e.ins + s.slice(at + e.del);
  }, xml));
