import net from 'node:net';

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free port below the kernel's ephemeral range: the SQL schema keeps membership ports in a
 * smallint (at most 32767), and ports picked there are not handed out to outgoing connections.
 */
export async function freeLowPort(taken: Set<number> = new Set()): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (!taken.has(port) && (await canListen(port))) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('no free port found between 20000 and 32000');
}
