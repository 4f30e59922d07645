import { ErrorCode } from '../errorCodes.ts';
import { apiKeys, newEncoder, type KafkaDecoder } from '../kafkajsInternals.ts';
import { apiHandler, NODE_ID } from './api.ts';

/** Metadata v1: this broker is the only node, controller and leader of every partition. */
export const metadata = apiHandler(apiKeys.Metadata, 1, async (ctx, { body }) => {
  const requested = readNullableStringArray(body);
  const topics = requested ?? ctx.store.names();
  return newEncoder()
    .writeArray([
      newEncoder().writeInt32(NODE_ID).writeString(ctx.host).writeInt32(ctx.port).writeString(null),
    ])
    .writeInt32(NODE_ID)
    .writeArray(
      topics.map((topic) =>
        newEncoder()
          .writeInt16(ErrorCode.NONE)
          .writeString(topic)
          .writeBoolean(false)
          .writeArray(
            ctx.store.ensure(topic).map((log) =>
              newEncoder()
                .writeInt16(ErrorCode.NONE)
                .writeInt32(log.partition)
                .writeInt32(NODE_ID)
                .writeArray([NODE_ID])
                .writeArray([NODE_ID]),
            ),
          ),
      ),
    );
});

/** In v1 a null topic array means "all topics", unlike an empty one. */
function readNullableStringArray(decoder: KafkaDecoder): string[] | null {
  const length = decoder.readInt32();
  if (length < 0) return null;
  return Array.from({ length }, () => decoder.readString() ?? '');
}
