import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';

/**
 * Closing the server waits for every connection to end, and Node ends only the idle ones. A
 * connection that has not sent a whole request (a client that connected and said nothing, or one
 * still sending its headers) is not idle to Node, and Node stops enforcing its header timeout once
 * the server closes: one such client would hold the stop until the supervisor kills the process.
 * Those connections carry no request being served, so they are cut as the server starts closing;
 * the ones with a request in flight are left to finish it.
 */
export function cutSilentConnectionsOnClose(fastify: FastifyInstance): void {
  const requestsInFlight = new Map<Socket, number>();
  fastify.server.on('connection', (socket) => {
    requestsInFlight.set(socket, 0);
    socket.once('close', () => requestsInFlight.delete(socket));
  });
  fastify.server.on('request', (req, res) => {
    const socket = req.socket;
    requestsInFlight.set(socket, (requestsInFlight.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const n = requestsInFlight.get(socket);
      if (n !== undefined) requestsInFlight.set(socket, n - 1);
    });
  });
  fastify.addHook('preClose', (done) => {
    for (const [socket, n] of requestsInFlight) if (n === 0) socket.destroy();
    done();
  });
}
