/**
 * XML text: the one-pass decoding of references. Only the five predefined entities and character
 * references are decoded (there is no DTD, so no other entity exists); an unknown `&name;` and a
 * reference to a character XML does not allow stay as written. One pass, so `&amp;lt;` stays `&lt;`.
 *
 * A hand-written scan rather than a regular expression with a replacer: a text made of nothing but
 * references (docs/domain.md "Decode limits") made the replacer build several small strings per
 * reference, three times the cost of this scan.
 */

const HASH = 35; // #
const SEMI = 59; // ;
const X = 120; // x

/** Longest character reference read: `&#x` + 6 hex digits, `&#` + 7 decimal digits. */
const MAX_HEX_DIGITS = 6;
const MAX_DECIMAL_DIGITS = 7;

export function isXmlChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

/** The value of hex digit `c`, or -1. */
export function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** The value of decimal digit `c`, or -1. */
export const decimalValue = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : -1);

const PREDEFINED_NAMES = ['amp', 'lt', 'gt', 'quot', 'apos'] as const;
const PREDEFINED_CHARS = ['&', '<', '>', '"', "'"] as const;

/**
 * Which predefined entity's name, followed by `;`, starts at `at` in `text`: its index in
 * `amp lt gt quot apos`, or -1. Compares in place (nothing is sliced).
 */
export function predefinedAt(text: string, at: number): number {
  for (let i = 0; i < PREDEFINED_NAMES.length; i++) {
    const name = PREDEFINED_NAMES[i]!;
    if (text.charCodeAt(at + name.length) === SEMI && text.startsWith(name, at)) return i;
  }
  return -1;
}

/** The length of the predefined entity name at index `i` of `predefinedAt`. */
export const predefinedLength = (i: number): number => PREDEFINED_NAMES[i]!.length;

// The reference just read by `referenceAt`: its text, and where it ends.
let readChars = '';
let readEnd = 0;

/**
 * Whether a reference that decodes starts at `at` (the `&`): one of the five predefined entities,
 * or a character reference (`&#x` and 1–6 hex digits, or `&#` and 1–7 digits, then `;`) to a
 * character XML allows. When it does, its text is in `readChars` and `readEnd` is after its `;`.
 */
function referenceAt(text: string, at: number): boolean {
  let j = at + 1;
  if (text.charCodeAt(j) !== HASH) {
    const i = predefinedAt(text, j);
    if (i === -1) return false;
    readChars = PREDEFINED_CHARS[i]!;
    readEnd = j + predefinedLength(i) + 1;
    return true;
  }
  j++;
  const hex = text.charCodeAt(j) === X;
  if (hex) j++;
  const base = hex ? 16 : 10;
  const maxDigits = hex ? MAX_HEX_DIGITS : MAX_DECIMAL_DIGITS;
  const digitsStart = j;
  let cp = 0;
  for (let d = hex ? hexValue(text.charCodeAt(j)) : decimalValue(text.charCodeAt(j)); d !== -1; d = hex ? hexValue(text.charCodeAt(j)) : decimalValue(text.charCodeAt(j))) {
    if (j - digitsStart === maxDigits) return false; // one digit more than allowed: not a reference
    cp = cp * base + d;
    j++;
  }
  if (j === digitsStart || text.charCodeAt(j) !== SEMI || !isXmlChar(cp)) return false;
  readChars = String.fromCodePoint(cp);
  readEnd = j + 1;
  return true;
}

export function decodeEntities(text: string): string {
  let k = text.indexOf('&');
  if (k === -1) return text;
  let out = '';
  let copied = 0;
  while (k !== -1) {
    if (referenceAt(text, k)) {
      out += text.slice(copied, k) + readChars;
      copied = readEnd;
      k = text.indexOf('&', readEnd);
    } else {
      k = text.indexOf('&', k + 1);
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}
