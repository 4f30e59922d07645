import { ErrorCode } from '../errorCodes.ts';
import { apiKeys, newEncoder } from '../kafkajsInternals.ts';
import { apiHandler } from './api.ts';

const MAX_VERSION = 2;

/**
 * ApiVersions v0–v2 (same body; v1+ adds throttle time). Like a real broker, a newer version is
 * answered in the v0 layout with UNSUPPORTED_VERSION so the client can retry with an older one.
 */
export const apiVersions = apiHandler(apiKeys.ApiVersions, [0, MAX_VERSION], async (ctx, { version }) => {
  const supported = version <= MAX_VERSION;
  const body = newEncoder()
    .writeInt16(supported ? ErrorCode.NONE : ErrorCode.UNSUPPORTED_VERSION)
    .writeArray(
      ctx.supportedApis.map((api) =>
        newEncoder().writeInt16(api.apiKey).writeInt16(api.minVersion).writeInt16(api.maxVersion),
      ),
    );
  return supported && version >= 1 ? body.writeInt32(0) : body;
});
