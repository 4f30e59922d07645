/**
 * A write model folded from position 0 up to `upTo` exactly, with the writer's own WriteModel: what
 * a snapshot at `upTo` must equal (msgx verify, the consistency sentinel, the crash matrix).
 */
import { readDecisionsAfter } from '../../log/readDecisions.ts';
import type { Queryable } from '../../platform/db.ts';
import { WriteModel } from '../pump/writeModel.ts';

const PAGE = 5000;

export async function foldModelUpTo(q: Queryable, upTo: string): Promise<WriteModel> {
  const model = new WriteModel();
  const limit = BigInt(upTo);
  let after = '0';
  for (;;) {
    const page = await readDecisionsAfter(q, after, PAGE);
    for (const e of page) {
      if (BigInt(e.position) > limit) return model;
      if (!model.apply(e.position, e.msgId, new Date(e.recordedAt), e.changes ?? [])) {
        throw new Error(`decision_event has a hole before position ${e.position} (folded up to ${model.position})`);
      }
      after = e.position;
    }
    if (page.length < PAGE) return model;
  }
}
