/**
 * The client connections of one simulated cluster's listener, held from the moment the server
 * accepts them. With TLS that includes a connection that has not started or not finished its
 * handshake: 'secureConnection' never sees one, yet `server.close()` waits for it (up to the
 * TLS handshake timeout, two minutes), and it could still complete and be served after an
 * outage began. Destroying the raw TCP socket also ends the TLS socket and HTTP connection on it.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Every open connection of one listener, for outages and dropped connections. */
export class Connections {
  private readonly sockets = new Set<Socket>();

  /**
   * Holds every socket `server` accepts until it closes. `counted` runs once per connection
   * when the accounting counts it: with TLS once the handshake completed, else on accept.
   */
  constructor(server: Server, tls: boolean, counted: () => void) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      if (!tls) counted();
    });
    if (tls) server.on('secureConnection', counted);
  }

  /** Connections open now, handshaking and idle keep-alive ones included. */
  get open(): number {
    return this.sockets.size;
  }

  /** Destroys every open connection at once; returns how many there were. */
  destroyAll(): number {
    const open = [...this.sockets];
    for (const socket of open) socket.destroy();
    return open.length;
  }
}
