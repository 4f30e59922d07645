// The gRPC service definitions and protobuf messages shipped with @eventstore/db-client.
// They are CommonJS (google-protobuf), so they are loaded with require; the same module
// instances the client uses, which the generated serializers' instanceof checks rely on.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const streamsGrpc = require('@eventstore/db-client/generated/streams_grpc_pb.js') as typeof import('@eventstore/db-client/generated/streams_grpc_pb.js');
export const streamsPb = require('@eventstore/db-client/generated/streams_pb.js') as typeof import('@eventstore/db-client/generated/streams_pb.js');
export const sharedPb = require('@eventstore/db-client/generated/shared_pb.js') as typeof import('@eventstore/db-client/generated/shared_pb.js');

export type UUIDMessage = import('@eventstore/db-client/generated/shared_pb.js').UUID;
