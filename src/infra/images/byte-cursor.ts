import { open } from 'node:fs/promises';
import { Truncated } from './header-faults.js';

/** Random access to the bytes of an image, in a file or in memory. */
export interface ByteSource {
  readonly size: number;
  /** Up to `length` bytes from `position`; fewer only at the end of the data. */
  read(position: number, length: number): Promise<Buffer>;
}

/** Runs `use` over the bytes of a file (read on demand, never whole) or of a buffer. */
export async function withByteSource<T>(
  input: string | Buffer,
  use: (source: ByteSource) => Promise<T>,
): Promise<T> {
  if (typeof input !== 'string') {
    return use({
      size: input.length,
      read: async (position, length) => input.subarray(position, position + length),
    });
  }
  const handle = await open(input, 'r');
  try {
    const { size } = await handle.stat();
    return await use({
      size,
      async read(position, length) {
        const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - position)));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
        return buffer.subarray(0, bytesRead);
      },
    });
  } finally {
    await handle.close();
  }
}

const WINDOW = 64 * 1024;

/** Sequential reads over a ByteSource through a 64 kB window; running past the end throws Truncated. */
export class Cursor {
  pos = 0;
  private window: Buffer = Buffer.alloc(0);
  private windowStart = 0;

  constructor(private readonly source: ByteSource) {}

  get size(): number {
    return this.source.size;
  }

  /** The next `n` bytes (n ≤ 64 kB), consumed. */
  async take(n: number): Promise<Buffer> {
    const bytes = await this.peek(n);
    this.pos += n;
    return bytes;
  }

  async peek(n: number): Promise<Buffer> {
    if (this.pos + n > this.source.size) throw new Truncated();
    const offset = this.pos - this.windowStart;
    if (offset >= 0 && offset + n <= this.window.length) return this.window.subarray(offset, offset + n);
    this.window = await this.source.read(this.pos, Math.max(n, WINDOW));
    this.windowStart = this.pos;
    if (this.window.length < n) throw new Truncated();
    return this.window.subarray(0, n);
  }

  async u8(): Promise<number> {
    return (await this.take(1))[0] as number;
  }

  skip(n: number): void {
    if (this.pos + n > this.source.size) throw new Truncated();
    this.pos += n;
  }

  /** Moves to the next occurrence of `byte`; false (at the end) when there is none. */
  async seek(byte: number): Promise<boolean> {
    while (this.pos < this.source.size) {
      const chunk = await this.available();
      const index = chunk.indexOf(byte);
      if (index >= 0) {
        this.pos += index;
        return true;
      }
      this.pos += chunk.length;
    }
    return false;
  }

  /** Whatever the window holds from the current position (refilled when empty). */
  private async available(): Promise<Buffer> {
    const offset = this.pos - this.windowStart;
    if (offset >= 0 && offset < this.window.length) return this.window.subarray(offset);
    this.window = await this.source.read(this.pos, WINDOW);
    this.windowStart = this.pos;
    if (this.window.length === 0) throw new Truncated();
    return this.window;
  }
}
