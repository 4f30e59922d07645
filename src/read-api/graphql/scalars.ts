import { GraphQLScalarType, Kind } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import { formatInZone } from '../../domain/time.ts';
import { ErrorCode } from './errors.ts';

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

const invalid = (message: string) => createGraphQLError(message, { extensions: { code: ErrorCode.badUserInput } });

/** A DateTime argument → UTC ISO instant; refuses local times without an offset. */
export function parseDateTime(value: unknown): string {
  if (typeof value !== 'string' || !ISO_WITH_OFFSET.test(value) || Number.isNaN(Date.parse(value))) {
    throw invalid(`DateTime must be ISO-8601 with an offset, e.g. 2025-03-14T09:30:00+08:00 (got ${JSON.stringify(value)})`);
  }
  return new Date(value).toISOString();
}

export function parseDay(value: unknown): string {
  const m = typeof value === 'string' ? DAY.exec(value) : null;
  const valid = m !== null && new Date(`${value as string}T00:00:00Z`).toISOString().startsWith(value as string);
  if (!valid) throw invalid(`Date must be YYYY-MM-DD (got ${JSON.stringify(value)})`);
  return value as string;
}

const QUARTER_HOUR = 900_000;

/**
 * formatInZone, memoized per quarter hour: every zone changes its offset only at quarter-hour
 * instants, so the offset found once holds for the whole bucket. A board renders tens of thousands
 * of instants; Intl per instant would dominate its response time.
 */
export function zoneFormatter(tz: string): (ms: number) => string {
  const offsets = new Map<number, string>();
  return (ms) => {
    const bucket = Math.floor(ms / QUARTER_HOUR);
    let offset = offsets.get(bucket);
    if (offset === undefined) {
      if (offsets.size >= 100_000) offsets.clear();
      offset = formatInZone(new Date(bucket * QUARTER_HOUR).toISOString(), tz).slice(19); // "+08:00"
      offsets.set(bucket, offset);
    }
    const sign = offset.startsWith('-') ? -1 : 1;
    const minutes = sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
    const seconds = Math.floor(ms / 1000) * 1000;
    return new Date(seconds + minutes * 60_000).toISOString().slice(0, 19) + offset;
  };
}

/** Instants are shown in the airport's zone with its offset (`2025-03-14T09:30:00+08:00`). */
export function createDateTimeScalar(tz: string): GraphQLScalarType {
  const format = zoneFormatter(tz);
  return new GraphQLScalarType({
    name: 'DateTime',
    description: 'ISO-8601 instant with offset; shown in the airport time zone',
    serialize(value) {
      const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : NaN;
      if (Number.isNaN(ms)) throw new TypeError(`DateTime cannot represent ${String(value)}`);
      return format(ms);
    },
    parseValue: parseDateTime,
    parseLiteral(ast) {
      if (ast.kind !== Kind.STRING) throw invalid('DateTime must be a string');
      return parseDateTime(ast.value);
    },
  });
}

export const DateScalar = new GraphQLScalarType({
  name: 'Date',
  description: 'Operation day, YYYY-MM-DD (airport local date)',
  serialize(value) {
    if (typeof value === 'string' && DAY.test(value)) return value;
    throw new TypeError(`Date cannot represent ${String(value)}`);
  },
  parseValue: parseDay,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw invalid('Date must be a string');
    return parseDay(ast.value);
  },
});
