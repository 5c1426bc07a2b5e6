import pino from 'pino';

/** What pino needs of a destination, plus what it calls to flush on exit and on a fatal line. */
export interface LogDestination {
  write(line: string): boolean;
  flushSync(): void;
  flush(callback?: (error?: Error) => void): void;
  end(): void;
}

/**
 * The logger's destination: pino's asynchronous file descriptor destination (sonic-boom), fed one
 * string per event-loop turn. Under load the access log writes a line per request; sonic-boom
 * measures the UTF-8 length of the text it is still holding on every write it is given while one is
 * in flight, so a line at a time costs a pass over everything pending. Lines of one turn are joined
 * here and handed over together once the turn's I/O callbacks have run (setImmediate): the order of
 * lines is kept, and nothing waits on the disk. On exit, and when pino flushes synchronously (a
 * fatal line), the pending text is handed over first and written before the process ends.
 */
/** Destinations holding text sonic-boom has not seen yet; pino's own exit flush does not know it. */
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
  const sonic = pino.destination({ dest: fd, sync: false });
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
