import pino from 'pino';

/** What pino needs of a destination, plus what it calls to flush on exit and on a fatal line. */
export interface LogDestination {
  write(line: string): boolean;
  flushSync(): void;
  flush(callback?: (error?: Error) => void): void;
  end(): void;
}

/**
 * The logger's destination: pino's file descriptor destination (sonic-boom), fed one string per
 * event-loop turn. Under load the access log writes a line per request; the lines of one turn are
 * joined here and written together once the turn's I/O callbacks have run (setImmediate) — one
 * write(2) per turn instead of one per line, and nothing between a request and its answer.
 *
 * The write itself is synchronous (pino's default, and Node's own for stdout on a pipe or a file):
 * whatever a finished turn logged is on the descriptor, in order, so an exit or a crash loses
 * nothing. An asynchronous destination cannot promise that — its write in flight on the thread
 * pool can be overtaken by the synchronous flush at exit, or cut off by it. On exit, and when pino
 * flushes (a fatal line), the pending text is written before the process ends.
 */
/** Destinations holding text of the current turn; pino's own exit flush does not know it. */
const holding = new Set<LogDestination>();
let exitHooked = false;
const flushHeldOnExit = () => {
  for (const destination of holding) destination.flushSync();
};

export function createLogDestination(fd = 1): LogDestination {
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', flushHeldOnExit);
  }
  const sonic = pino.destination({ dest: fd, sync: true });
  let pending = '';
  let scheduled = false;
  const handOver = () => {
    scheduled = false;
    if (pending === '') return;
    holding.delete(destination);
    const text = pending;
    pending = '';
    sonic.write(text);
  };
  const destination: LogDestination = {
    write(line) {
      pending += line;
      if (!scheduled) {
        scheduled = true;
        holding.add(destination);
        setImmediate(handOver);
      }
      return true;
    },
    flushSync() {
      handOver();
      sonic.flushSync();
    },
    flush(callback) {
      handOver();
      sonic.flush(callback);
    },
    end() {
      handOver();
      sonic.end();
    },
  };
  return destination;
}
