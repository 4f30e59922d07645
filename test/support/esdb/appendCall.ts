import { status, type handleClientStreamingCall } from '@grpc/grpc-js';
import type { AppendReq, AppendResp } from '@eventstore/db-client/generated/streams_pb.js';
import type { AppendOutcome, EventStreams, ExpectedRevision, ProposedEvent } from './eventStreams.ts';
import { grpcError, unavailable } from './grpcErrors.ts';
import { sharedPb, streamsPb } from './grpcModules.ts';
import { uuidToString } from './uuid.ts';

export interface AppendDeps {
  readonly streams: EventStreams;
  readonly isUnavailable: () => boolean;
  readonly now: () => number;
  /** The server's MaxAppendSize: an append whose events' data and metadata add up to more is refused whole. */
  readonly maxAppendBytes: number;
}

/** Streams.Append: an options message, then the proposed events; one response at the end. */
export function appendCall(deps: AppendDeps): handleClientStreamingCall<AppendReq, AppendResp> {
  return (call, callback) => {
    if (deps.isUnavailable()) {
      callback(unavailable());
      return;
    }
    let options: AppendReq.Options | undefined;
    const proposed: ProposedEvent[] = [];
    let size = 0;
    let finished = false;
    const fail = (error: ReturnType<typeof grpcError>): void => {
      finished = true;
      callback(error);
    };
    call.on('error', () => {
      finished = true; // cancelled by the client; nothing is written
    });
    call.on('data', (req: AppendReq) => {
      if (finished) return;
      const message = req.getProposedMessage();
      if (req.hasOptions()) options = req.getOptions();
      else if (message !== undefined) {
        const event = toProposedEvent(message);
        if (typeof event === 'string') return fail(missingMetadata(event));
        proposed.push(event);
        size += event.data.length + event.customMetadata.length;
        if (size > deps.maxAppendBytes) fail(maxAppendSizeExceeded(deps.maxAppendBytes));
      }
    });
    call.on('end', () => {
      if (finished) return;
      finished = true;
      if (deps.isUnavailable()) return callback(unavailable());
      const streamName = options?.getStreamIdentifier()?.getStreamName_asU8();
      const expected = options === undefined ? undefined : expectedRevision(options);
      if (streamName === undefined || expected === undefined) {
        return callback(grpcError(status.INVALID_ARGUMENT, 'append needs a stream and an expected revision'));
      }
      const outcome = deps.streams.append(Buffer.from(streamName).toString('utf8'), expected, proposed, deps.now());
      callback(null, toResponse(outcome, expected));
    });
  };
}

function expectedRevision(options: AppendReq.Options): ExpectedRevision | undefined {
  const Case = streamsPb.AppendReq.Options.ExpectedStreamRevisionCase;
  switch (options.getExpectedStreamRevisionCase()) {
    case Case.REVISION:
      return { kind: 'exact', revision: BigInt(options.getRevision()) };
    case Case.NO_STREAM:
      return { kind: 'no_stream' };
    case Case.ANY:
      return { kind: 'any' };
    case Case.STREAM_EXISTS:
      return { kind: 'stream_exists' };
    case Case.EXPECTED_STREAM_REVISION_NOT_SET:
      return undefined;
  }
}

/** The event, or the name of the missing required metadata property. */
function toProposedEvent(message: AppendReq.ProposedMessage): ProposedEvent | string {
  const metadata = message.getMetadataMap();
  const type = metadata.get('type');
  const contentType = metadata.get('content-type');
  const id = message.getId();
  if (type === undefined) return 'type';
  if (contentType === undefined) return 'content-type';
  if (id === undefined) return 'id';
  return {
    id: uuidToString(id),
    type,
    contentType,
    data: message.getData_asU8(),
    customMetadata: message.getCustomMetadata_asU8(),
  };
}

/** What EventStoreDB answers an append over its MaxAppendSize (the client makes it a MaxAppendSizeExceededError). */
function maxAppendSizeExceeded(max: number): ReturnType<typeof grpcError> {
  return grpcError(status.INVALID_ARGUMENT, `Maximum Append Size of ${max} Exceeded.`, {
    exception: 'maximum-append-size-exceeded',
    'maximum-append-size': String(max),
  });
}

function missingMetadata(property: string): ReturnType<typeof grpcError> {
  return grpcError(status.INVALID_ARGUMENT, `missing required property ${property}`, {
    exception: 'missing-required-metadata-property',
    'required-metadata-properties': 'type,content-type',
  });
}

function toResponse(outcome: AppendOutcome, expected: ExpectedRevision): AppendResp {
  const response = new streamsPb.AppendResp();
  if (outcome.success) {
    const success = new streamsPb.AppendResp.Success();
    if (outcome.currentRevision >= 0n) success.setCurrentRevision(outcome.currentRevision.toString());
    else success.setNoStream(new sharedPb.Empty());
    if (outcome.position >= 0n) {
      const position = new streamsPb.AppendResp.Position();
      position.setCommitPosition(outcome.position.toString());
      position.setPreparePosition(outcome.position.toString());
      success.setPosition(position);
    } else success.setNoPosition(new sharedPb.Empty());
    return response.setSuccess(success);
  }
  const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
  if (outcome.currentRevision === null) wrong.setCurrentNoStream(new sharedPb.Empty());
  else wrong.setCurrentRevision(outcome.currentRevision.toString());
  switch (expected.kind) {
    case 'exact':
      wrong.setExpectedRevision(expected.revision.toString());
      break;
    case 'any':
      wrong.setExpectedAny(new sharedPb.Empty());
      break;
    case 'no_stream':
      wrong.setExpectedNoStream(new sharedPb.Empty());
      break;
    case 'stream_exists':
      wrong.setExpectedStreamExists(new sharedPb.Empty());
      break;
  }
  return response.setWrongExpectedVersion(wrong);
}
