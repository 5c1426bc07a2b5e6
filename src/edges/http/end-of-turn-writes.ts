import type { FastifyReply } from 'fastify';

/** Replies and their payloads, held until the end of this event-loop turn (pairs, flat). */
const held: Array<FastifyReply | string | Buffer> = [];

function sendHeld(): void {
  // Taken out first: a send may hold another answer (it then waits for the next turn).
  const pairs = held.splice(0, held.length);
  for (let i = 0; i < pairs.length; i += 2) {
    const reply = pairs[i] as FastifyReply;
    // Nothing may escape here, or the answers after it in the turn would never leave.
    try {
      reply.send(pairs[i + 1]);
    } catch (error) {
      // As Fastify does for a handler's answer that fails to send: the error becomes the answer;
      // when even that cannot be written, the connection is closed.
      try {
        reply.send(error as Error);
      } catch {
        reply.raw.destroy(error as Error);
      }
    }
  }
}

/**
 * Sends `payload` at the end of this event-loop turn (`setImmediate`: after the turn's I/O
 * callbacks), so that the answers to the requests read in one turn leave back to back instead of
 * one between each request's work. Each write to a client that sleeps wakes it, and the sender's
 * write(2) pays for that; answers written together find it awake. An answer waits at most for the
 * rest of its turn. The whole send is deferred, not just the socket write: Node's `res.end()`
 * uncorks its socket fully, so a socket corked for the turn would still be written at once.
 *
 * Returns the reply: an async handler returns it (Fastify then waits for the response to finish);
 * a sync handler returns nothing.
 */
export function sendAtEndOfTurn(reply: FastifyReply, payload: string | Buffer): FastifyReply {
  if (held.length === 0) setImmediate(sendHeld);
  held.push(reply, payload);
  return reply;
}
