/**
 * The proxy's allow-list. `host` matches that host exactly; `*.example.com` matches any name
 * under example.com (not example.com itself); `host:port` allows that port only. Without a
 * port only the web ports are allowed (80, 443): another port has to be named.
 */
const WEB_PORTS = [80, 443];

interface Rule {
  host: string;
  wildcard: boolean;
  port?: number;
}

export function parseAllowHosts(entries: readonly string[]): Rule[] {
  return entries.map((entry) => {
    const match = /^(\*\.)?([A-Za-z0-9.-]+?)\.?(?::(\d{1,5}))?$/.exec(entry.trim());
    if (!match?.[2]) throw new Error(`not a host pattern: "${entry}"`);
    const rule: Rule = { host: match[2].toLowerCase(), wildcard: Boolean(match[1]) };
    if (match[3] !== undefined) rule.port = Number(match[3]);
    return rule;
  });
}

export function isHostAllowed(rules: readonly Rule[], host: string, port: number): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return rules.some((rule) => {
    const portOk = rule.port === undefined ? WEB_PORTS.includes(port) : rule.port === port;
    const hostOk = rule.wildcard ? name.endsWith(`.${rule.host}`) : name === rule.host;
    return portOk && hostOk;
  });
}
