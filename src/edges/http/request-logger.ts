import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * A request's logger (`request.log`, with the request id bound), made into pino's child logger only
 * when the request logs a line of its own. Fastify makes a child for every request; pino's
 * `child()` serialises the bindings through the redaction rules (a third of a microsecond, a
 * fiftieth of a poll's CPU), and a poll never uses it: its one line, the access line, is written
 * from the root logger (access-log.ts). The line, once written, is the child's to the byte.
 */
class RequestLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  get logger(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

const levels: Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
for (const level of levels) {
  Object.defineProperty(RequestLogger.prototype, level, {
    value(this: RequestLogger, ...args: unknown[]) {
      (this.logger[level] as (...line: unknown[]) => void)(...args);
    },
  });
}

/** Fastify's `childLoggerFactory`: each request's logger, made on first use. */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
