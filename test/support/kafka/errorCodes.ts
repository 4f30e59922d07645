import { kafkaErrorCode } from './kafkajsInternals.ts';

/** The Kafka protocol error codes the test broker answers with (values taken from kafkajs). */
export const ErrorCode = {
  NONE: 0,
  OFFSET_OUT_OF_RANGE: kafkaErrorCode('OFFSET_OUT_OF_RANGE'),
  CORRUPT_MESSAGE: kafkaErrorCode('CORRUPT_MESSAGE'),
  UNKNOWN_TOPIC_OR_PARTITION: kafkaErrorCode('UNKNOWN_TOPIC_OR_PARTITION'),
  ILLEGAL_GENERATION: kafkaErrorCode('ILLEGAL_GENERATION'),
  INCONSISTENT_GROUP_PROTOCOL: kafkaErrorCode('INCONSISTENT_GROUP_PROTOCOL'),
  UNKNOWN_MEMBER_ID: kafkaErrorCode('UNKNOWN_MEMBER_ID'),
  REBALANCE_IN_PROGRESS: kafkaErrorCode('REBALANCE_IN_PROGRESS'),
  UNSUPPORTED_VERSION: kafkaErrorCode('UNSUPPORTED_VERSION'),
  TOPIC_ALREADY_EXISTS: kafkaErrorCode('TOPIC_ALREADY_EXISTS'),
  INVALID_PARTITIONS: kafkaErrorCode('INVALID_PARTITIONS'),
  OUT_OF_ORDER_SEQUENCE_NUMBER: kafkaErrorCode('OUT_OF_ORDER_SEQUENCE_NUMBER'),
  INVALID_PRODUCER_EPOCH: kafkaErrorCode('INVALID_PRODUCER_EPOCH'),
  UNKNOWN_PRODUCER_ID: kafkaErrorCode('UNKNOWN_PRODUCER_ID'),
} as const;
