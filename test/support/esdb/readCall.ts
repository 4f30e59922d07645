import { status, type handleServerStreamingCall } from '@grpc/grpc-js';
import type { ReadReq, ReadResp } from '@eventstore/db-client/generated/streams_pb.js';
import type { EventStreams, ReadFrom, RecordedEvent } from './eventStreams.ts';
import { grpcError, unavailable } from './grpcErrors.ts';
import { sharedPb, streamsPb } from './grpcModules.ts';

export interface ReadDeps {
  readonly streams: EventStreams;
  readonly isUnavailable: () => boolean;
}

const BACKWARDS = 1;

/** Streams.Read of one stream, forwards or backwards; $all reads and subscriptions are not served. */
export function readCall(deps: ReadDeps): handleServerStreamingCall<ReadReq, ReadResp> {
  return (call) => {
    if (deps.isUnavailable()) {
      call.emit('error', unavailable());
      return;
    }
    const options = call.request.getOptions();
    const streamOptions = options?.getStream();
    const identifier = streamOptions?.getStreamIdentifier();
    const Count = streamsPb.ReadReq.Options.CountOptionCase;
    if (options === undefined || streamOptions === undefined || identifier === undefined) {
      call.emit('error', grpcError(status.UNIMPLEMENTED, 'EventStoreDB test peer: only stream reads are supported'));
      return;
    }
    if (options.getCountOptionCase() === Count.SUBSCRIPTION) {
      call.emit('error', grpcError(status.UNIMPLEMENTED, 'EventStoreDB test peer: subscriptions are not supported'));
      return;
    }
    const streamName = Buffer.from(identifier.getStreamName_asU8()).toString('utf8');
    const events = deps.streams.read(streamName, {
      from: readFrom(streamOptions),
      direction: options.getReadDirection() === BACKWARDS ? 'backwards' : 'forwards',
      maxCount: options.getCountOptionCase() === Count.COUNT ? BigInt(options.getCount()) : BigInt(Number.MAX_SAFE_INTEGER),
    });
    if (events === null) {
      const notFound = new streamsPb.ReadResp.StreamNotFound();
      notFound.setStreamIdentifier(identifier);
      call.write(new streamsPb.ReadResp().setStreamNotFound(notFound));
    } else {
      for (const event of events) call.write(toReadResp(event, identifier));
    }
    call.end();
  };
}

function readFrom(options: ReadReq.Options.StreamOptions): ReadFrom {
  if (options.hasRevision()) return BigInt(options.getRevision());
  return options.hasEnd() ? 'end' : 'start';
}

function toReadResp(event: RecordedEvent, identifier: ReturnType<ReadReq.Options.StreamOptions['getStreamIdentifier']>): ReadResp {
  const id = new sharedPb.UUID();
  id.setString(event.id);
  const recorded = new streamsPb.ReadResp.ReadEvent.RecordedEvent()
    .setId(id)
    .setStreamIdentifier(identifier)
    .setStreamRevision(event.revision.toString())
    .setCommitPosition(event.position.toString())
    .setPreparePosition(event.position.toString())
    .setData(event.data)
    .setCustomMetadata(event.customMetadata);
  recorded
    .getMetadataMap()
    .set('type', event.type)
    .set('content-type', event.contentType)
    .set('created', event.createdTicks.toString());
  const readEvent = new streamsPb.ReadResp.ReadEvent().setEvent(recorded).setCommitPosition(event.position.toString());
  return new streamsPb.ReadResp().setEvent(readEvent);
}
