import { ErrorCode } from '../errorCodes.ts';
import { apiKeys, newEncoder } from '../kafkajsInternals.ts';
import { apiHandler } from './api.ts';

/**
 * InitProducerId v0 for idempotent producers: a fresh producer id with epoch 0 each time.
 * Transactions are not supported (their APIs are not advertised).
 */
export const initProducerId = apiHandler(apiKeys.InitProducerId, 0, async (ctx, { body }) => {
  body.readString(); // transactional_id
  body.readInt32(); // transaction_timeout_ms
  return newEncoder()
    .writeInt32(0)
    .writeInt16(ErrorCode.NONE)
    .writeInt64(ctx.allocateProducerId())
    .writeInt16(0);
});
