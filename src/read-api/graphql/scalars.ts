import { GraphQLScalarType, Kind } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import { zoneFormatter } from '../../domain/time.ts';
import { ErrorCode } from './errors.ts';

const ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

const invalid = (message: string) => createGraphQLError(message, { extensions: { code: ErrorCode.badUserInput } });
/** What a client sent, quoted short in an error. */
const quote = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value.slice(0, 60)) : typeof value);

/**
 * A calendar day that exists, in years 1–9999 (PostgreSQL's and ISO's common range). JavaScript's
 * Date rolls 2025-02-30 over to 2 March; this refuses it.
 */
export function isCalendarDay(year: number, month: number, day: number): boolean {
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

/** A DateTime argument → UTC ISO instant; refuses local times without an offset and days that do not exist. */
export function parseDateTime(value: unknown): string {
  const m = typeof value === 'string' ? ISO_WITH_OFFSET.exec(value) : null;
  const n = (i: number) => Number(m![i] ?? '0');
  const valid =
    m !== null &&
    isCalendarDay(n(1), n(2), n(3)) &&
    n(4) <= 23 && n(5) <= 59 && n(6) <= 59 &&
    (m[8] === 'Z' || (n(9) <= 15 && n(10) <= 59)) &&
    !Number.isNaN(Date.parse(value as string));
  if (!valid) {
    throw invalid(`DateTime must be ISO-8601 with an offset, on a day that exists, e.g. 2025-03-14T09:30:00+08:00 (got ${quote(value)})`);
  }
  const iso = new Date(value as string);
  if (iso.getUTCFullYear() < 1 || iso.getUTCFullYear() > 9999) throw invalid(`DateTime is out of range (got ${quote(value)})`);
  return iso.toISOString();
}

export function parseDay(value: unknown): string {
  const m = typeof value === 'string' ? DAY.exec(value) : null;
  if (!m || !isCalendarDay(Number(m[1]), Number(m[2]), Number(m[3]))) {
    throw invalid(`Date must be YYYY-MM-DD, a day that exists (got ${quote(value)})`);
  }
  return value as string;
}

/** Instants are shown in the airport's zone with its offset (`2025-03-14T09:30:00+08:00`, `…:00.123+08:00` with milliseconds). */
export function createDateTimeScalar(tz: string): GraphQLScalarType {
  const format = zoneFormatter(tz);
  // Instants come as ISO UTC text from the read model and repeat a lot across a board (the same
  // minutes, flight after flight): each text is rendered once.
  const shown = new Map<string, string>();
  return new GraphQLScalarType({
    name: 'DateTime',
    description: 'ISO-8601 instant with offset; shown in the airport time zone',
    serialize(value) {
      if (typeof value === 'string') {
        const hit = shown.get(value);
        if (hit !== undefined) return hit;
      }
      const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : NaN;
      if (Number.isNaN(ms)) throw new TypeError(`DateTime cannot represent ${String(value)}`);
      const text = format(ms);
      if (typeof value === 'string') {
        if (shown.size >= 100_000) shown.clear();
        shown.set(value, text);
      }
      return text;
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
