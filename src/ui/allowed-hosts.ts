/**
 * The `Host` headers the page answers: loopback names on its port, the address it listens on
 * (unless a wildcard) and the host of BAREAGENT_UI_URL. Anything else is refused: a DNS-rebinding
 * page reaches a loopback server under its own host name, and must not read the answers.
 */
export function allowedHosts(listen: { address: string; family: string; port: number }, publicUrl: URL | undefined): Set<string> {
  const port = listen.port;
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  if (!['0.0.0.0', '::'].includes(listen.address)) hosts.push(listen.family === 'IPv6' ? `[${listen.address}]:${port}` : `${listen.address}:${port}`);
  if (publicUrl) {
    hosts.push(publicUrl.host.toLowerCase());
    // new URL() drops a default port, a browser's Host header may carry it.
    if (!publicUrl.port) hosts.push(`${publicUrl.hostname.toLowerCase()}:${publicUrl.protocol === 'https:' ? 443 : 80}`);
  }
  return new Set(hosts);
}
