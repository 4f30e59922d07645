import type { ReadContext } from './context.ts';
import { badInput } from './errors.ts';
import { selectOperationProgress, type OperationProgressRecord } from '../sql/selectOperationProgress.ts';

const MAX_FIRST = 100;
const MAX_HOURS = 168;

export const progressResolvers = {
  Query: {
    async operationProgress(_: unknown, args: { withinHours?: number | null; first?: number | null }, ctx: ReadContext) {
      const hours = args.withinHours ?? 24;
      const first = args.first ?? 20;
      if (!Number.isInteger(hours) || hours < 1 || hours > MAX_HOURS) throw badInput(`withinHours must be between 1 and ${MAX_HOURS}`, 'withinHours');
      if (!Number.isInteger(first) || first < 0 || first > MAX_FIRST) throw badInput(`first must be between 0 and ${MAX_FIRST}`, 'first');
      return selectOperationProgress(ctx.deps.db, hours, first);
    },
  },
  OperationProgress: {
    percent: (o: OperationProgressRecord) => (o.total === null || o.total <= 0 ? null : Math.min(100, (o.done / o.total) * 100)),
  },
};
