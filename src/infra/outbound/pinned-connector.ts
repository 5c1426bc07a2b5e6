import type { buildConnector } from 'undici';
import type { VettedTarget } from './address-policy.js';
import { undici } from './undici.js';

export interface PinnedConnectorOptions {
  /** Time allowed to open each TCP (and TLS) connection. Default 5 s. */
  connectTimeoutMs?: number;
  /**
   * Observation hook: called with the vetted address and port right before each TCP connection
   * is opened. Tests use it to prove that no connection is attempted to a refused address.
   */
  onConnect?: (address: string, port: number) => void;
  /**
   * TEST-ONLY: where the socket for a vetted address really goes, so tests can stand a loopback
   * server in for a public address. Never set it in production: left unset, the socket goes to
   * the vetted address itself, which is the whole point of this module.
   */
  connectTarget?: (address: string, port: number) => { host: string; port: number };
}

/** Whether a socket was opened, so errors can tell "could not connect" from "failed mid-exchange". */
export interface ConnectionState {
  connected: boolean;
}

/**
 * Opens HTTP clients whose sockets can only go to a vetted target's addresses, tried in order.
 * Security: resolve once and connect to that address, or a second lookup can be rebound to
 * 127.0.0.1. The connector ignores the URL's host name and dials the vetted address itself.
 */
export function createPinnedConnector(options: PinnedConnectorOptions = {}) {
  // Built at the first connection (undici is loaded then, not at start).
  let built: buildConnector.connector | undefined;
  const baseConnector: buildConnector.connector = (connectOptions, callback) => {
    built ??= undici().buildConnector({ timeout: options.connectTimeoutMs ?? 5_000 });
    built(connectOptions, callback);
  };

  function connectorFor(
    target: VettedTarget,
    signal: AbortSignal,
    state: ConnectionState,
  ): buildConnector.connector {
    return (connectOptions, callback) => {
      let index = 0;
      const attempt = () => {
        const address = target.addresses[index] as string;
        options.onConnect?.(address, target.port);
        const destination = options.connectTarget?.(address, target.port) ?? {
          host: address,
          port: target.port,
        };
        baseConnector(
          { ...connectOptions, hostname: destination.host, port: String(destination.port) },
          (err, socket) => {
            if (err !== null) {
              index += 1;
              if (index < target.addresses.length && !signal.aborted) attempt();
              else callback(err, null);
              return;
            }
            state.connected = true;
            callback(null, socket);
          },
        );
      };
      attempt();
    };
  }

  return {
    /**
     * A one-connection client for `target` (destroy it when done) and the state of its socket.
     * `timeoutMs` bounds the wait for response headers and between body chunks.
     */
    open(target: VettedTarget, signal: AbortSignal, timeoutMs: number) {
      const state: ConnectionState = { connected: false };
      const client = new (undici().Client)(target.url.origin, {
        connect: connectorFor(target, signal, state),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        pipelining: 1,
      });
      return { client, state };
    },
  };
}

export type PinnedConnector = ReturnType<typeof createPinnedConnector>;
