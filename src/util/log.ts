/**
 * Structured JSON logging (pino). One root logger per process, children per concern:
 * `log.child({ actor: 'mempool' })`. Errors go under the `err` key so pino's standard
 * serializer keeps the type, message and stack.
 */
import { pino } from 'pino';

export type Logger = pino.Logger;
export type LogLevel = pino.LevelWithSilent;
export type DestinationStream = pino.DestinationStream;

export interface LoggerOptions {
  /** Minimum level written; 'info' unless given. */
  level?: LogLevel | string;
  /** Added to every line as `name`. */
  name?: string;
  /**
   * Where lines go: 'stdout' (default), 'silent' (nothing is written), a file path
   * (created with its directories, appended to), or any stream with `write(line)`
   * (tests use this to capture lines).
   */
  destination?: 'stdout' | 'silent' | string | DestinationStream;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const { destination = 'stdout' } = opts;
  const silent = destination === 'silent';
  const options: pino.LoggerOptions = {
    level: silent ? 'silent' : (opts.level ?? 'info'),
    ...(opts.name === undefined ? {} : { name: opts.name }),
  };
  if (silent) return pino(options);
  // Synchronous writes: a node that halts on a broken invariant must not lose the line saying why.
  if (destination === 'stdout') return pino(options, pino.destination({ dest: 1, sync: true }));
  if (typeof destination === 'string') {
    return pino(options, pino.destination({ dest: destination, sync: true, mkdir: true, append: true }));
  }
  return pino(options, destination);
}

/** A logger that writes nothing: for tests and tools that do not want output. */
export function silentLogger(): Logger {
  return createLogger({ destination: 'silent' });
}

/** A parsed log line as pino writes it. */
export interface LogRecord {
  level: number;
  time: number;
  msg?: string;
  name?: string;
  err?: { type: string; message: string; stack: string };
  [key: string]: unknown;
}

/**
 * A logger that keeps every line in memory, parsed: for tests that assert on what
 * was logged. `records` grows without bound, so never use it in the node itself.
 */
export function createMemoryLogger(opts: Omit<LoggerOptions, 'destination'> = {}): {
  log: Logger;
  records: LogRecord[];
} {
  const records: LogRecord[] = [];
  const stream: DestinationStream = {
    write(line: string) {
      records.push(JSON.parse(line) as LogRecord);
    },
  };
  return { log: createLogger({ level: 'trace', ...opts, destination: stream }), records };
}

/** pino's numeric levels, to compare records: `record.level >= LOG_LEVEL.error`. */
export const LOG_LEVEL = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
} as const;
