/**
 * The XML reader's limits (docs/domain.md "Decode limits", docs/security.md). Reading is linear in
 * the input; these bound what one message may make msgx build and then decide. The reader checks
 * each as it goes and stops at the first one crossed, so an over-limit message costs no more than
 * the text up to that point. The values sit far above any real message (the conformance corpus and
 * the interface use names of 4 characters, 3 attributes at most; a 16 MiB plan of full records has
 * ~870,000 elements in ~21,000 FLTR) and keep the largest message accepted (16 MiB) cheap.
 */

/** Characters of an element or attribute name. */
export const MAX_NAME_LENGTH = 64;
/** Attributes on one element. */
export const MAX_ATTRIBUTES = 64;
/**
 * Child elements of one element. This is the limit on records per message: a plan's FLTR records
 * are the children of its SCHD (or SCHS), FLOP blocks and reference records are children of MSG, a
 * flight's list items are children of its FLTR or FLOP block. A plan of 70,000 minimal records
 * decodes; one of 150,000 is refused.
 */
export const MAX_CHILDREN = 100_000;
/** Elements in one message, the root included: ~8 bytes each at 16 MiB; real plans use ~19. */
export const MAX_ELEMENTS = 2_000_000;
/** Open elements at once (fast-xml-parser's limit, kept so no text the first reader refused passes). */
export const MAX_DEPTH = 101;

/**
 * A message over one of the limits above at offset `at`; `parseXml` turns it into a MALFORMED
 * result whose reason names the limit and the count reached.
 */
export class XmlLimitError extends Error {
  override readonly name = 'XmlLimitError';

  constructor(readonly problem: string, readonly at: number) {
    super(problem);
  }
}

/** `n` with thousands separators, as reasons spell counts (`100,001`). */
export const count = (n: number): string => n.toLocaleString('en');

/** The start of every limit reason, so operators and tests can tell it from a syntax fault. */
export const OVER_LIMIT = 'over a decode limit';
