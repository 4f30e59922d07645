import { Metadata, status, type ServerErrorResponse } from '@grpc/grpc-js';

/** A gRPC status error; `exception` is the metadata key EventStoreDB uses to name its error type. */
export function grpcError(code: status, details: string, exception?: Readonly<Record<string, string>>): ServerErrorResponse {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(exception ?? {})) metadata.set(key, value);
  return Object.assign(new Error(details), { code, details, metadata });
}

export const unavailable = (): ServerErrorResponse =>
  grpcError(status.UNAVAILABLE, 'EventStoreDB test peer: unavailable (fault injected)');
