/**
 * The `reference` projector: reference records (23 kinds) and seasonal schedules into
 * reference_record / seasonal_flight / seasonal_season, in the batch transaction that advances
 * its own checkpoint. It keeps no state between batches: every change carries the whole record
 * (or season), so a batch needs nothing from the rows.
 */
import type { PoolClient } from '../../platform/db.ts';
import type { DecisionEvent } from '../../log/readDecisions.ts';
import type { Projector } from '../projector.ts';
import { REFERENCE_PROJECTOR } from '../../readModel/projectorNames.ts';
import { emptyPendingReference, foldReferenceEvents, isPendingEmpty } from './referenceFold.ts';
import { writeReference } from './writeReference.ts';

export { REFERENCE_PROJECTOR };

export function createReferenceProjector(): Projector {
  return {
    name: REFERENCE_PROJECTOR,
    async apply(client: PoolClient, events: readonly DecisionEvent[]) {
      const pending = emptyPendingReference();
      foldReferenceEvents(events, pending);
      if (!isPendingEmpty(pending)) await writeReference(client, pending);
    },
  };
}
