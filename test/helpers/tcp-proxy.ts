import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a shared service (Redis), so a test can take the service
 * away from one app and give it back without touching the server the other tests use. `cut()`
 * closes the port (new connections are refused) and drops the open ones; `restore()` listens on
 * the same port again.
 */
export interface TcpProxy {
  port: number;
  /** The target's URL with the proxy's port (`redis://127.0.0.1:<port>`). */
  url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  let server: net.Server | undefined;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const s = net.createServer((client) => {
        track(client);
        const upstream = net.connect(Number(target.port), target.hostname);
        track(upstream);
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        server = s;
        resolve((s.address() as net.AddressInfo).port);
      });
    });
  const stop = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (s) await new Promise<void>((r) => s.close(() => r()));
  };
  const port = await listen(0);
  const url = new URL(targetUrl);
  url.port = String(port);
  return {
    port,
    url: url.toString().replace(/\/$/, ''),
    cut: stop,
    async restore() {
      if (!server) await listen(port);
    },
    close: stop,
  };
}
