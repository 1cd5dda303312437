// The HTTP ceiling: a bare node:http server answering every request with a fixed JSON body (the
// same body as the framework ceiling's), so the difference to it is the framework's cost.
//
//   PORT=8798 node bench/ceilings/http-server.mjs      # prints "listening <port>" once ready
import { createServer } from 'node:http';

const BODY = JSON.stringify({ allowed: true, source: 'role', viaRoleId: '01900000-0000-7000-8000-000000000001' });
const port = Number(process.env.PORT ?? 8798);
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(BODY) });
  res.end(BODY);
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${port}\n`));
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)).closeAllConnections());
