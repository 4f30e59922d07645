/**
 * Element and attribute names: the XML Name check, the renaming of names that collide with JS
 * prototype keys, and a cache that finds a name already seen without slicing it out of the text.
 */

// Names that would collide with JS prototype keys are renamed (as the first reader did), so an odd
// extra element in a body stays an ignorable unknown element, not a parse failure.
const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const OBJECT_METHOD_NAMES = new Set([
  'hasOwnProperty', 'toString', 'valueOf', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__',
]);
const safeName = (name: string): string =>
  RESERVED_NAMES.has(name) ? `_reserved_${name}` : OBJECT_METHOD_NAMES.has(name) ? `__${name}` : name;

// XML 1.0 Name (BMP only). A name must also hold no character that String#trim or /\s/ treats as
// space (U+FEFF is a name character but the first reader split names there).
const NAME_START = ':A-Za-z_\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D' +
  '\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD';
const NAME = new RegExp(`^[${NAME_START}][${NAME_START}\\-.\\d\\u00B7\\u0300-\\u036F\\u203F-\\u2040]*$`);
const SPACE = /\s/;
const NAME_CACHE_LIMIT = 10_000;
const NAME_BUCKET_LIMIT = 8;

/**
 * The same text as a V8 internalized string (property keys are): the readers compare element names
 * with string literals ~40 times per plan record, and two internalized strings compare by pointer.
 */
const internalized = (text: string): string => Object.keys({ [text]: 0 })[0]!;

/** A name as written (`raw`) and as read: renamed and internalized, or null when not a Name. */
export interface NameEntry {
  readonly raw: string;
  readonly name: string | null;
}

// Names seen before, by a hash of their characters: a plan has ~225,000 tags of ~60 names, and
// finding one here (compare in place) saves slicing and hashing a new string per tag.
const namesByHash = new Map<number, NameEntry[]>();
let namesCached = 0;

/** The name written at s[from, to), whose character hash is `hash`. */
export function nameAt(s: string, from: number, to: number, hash: number): NameEntry {
  const bucket = namesByHash.get(hash);
  if (bucket !== undefined) {
    for (const e of bucket) if (e.raw.length === to - from && s.startsWith(e.raw, from)) return e;
  }
  const raw = s.slice(from, to);
  const entry: NameEntry = { raw, name: NAME.test(raw) && !SPACE.test(raw) ? internalized(safeName(raw)) : null };
  if (namesCached >= NAME_CACHE_LIMIT) {
    namesByHash.clear();
    namesCached = 0;
  }
  const current = namesByHash.get(hash);
  // A bucket holds a few names at most, so crafted colliding names cannot make lookups slow.
  if (current === undefined) namesByHash.set(hash, [entry]);
  else if (current.length < NAME_BUCKET_LIMIT) current.push(entry);
  else return entry;
  namesCached++;
  return entry;
}

/** One character into a name's hash. */
export const hashStep = (hash: number, c: number): number => (Math.imul(hash, 31) + c) | 0;
