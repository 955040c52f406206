import { parseEgressAllow, refusedAddress, isHostAllowedByOperator } from '../../src/egress/egress-policy';
import { resolveAllowed, setEgressResolver } from '../../src/egress/resolve-allowed';

const none = parseEgressAllow(undefined);

test.each([
  ['127.0.0.1', 'loopback'],
  ['::1', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.9', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['fe80::1', 'link-local'],
  ['fd00:ec2::254', 'unique-local'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['224.0.0.251', 'multicast'],
  ['ff02::1', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:169.254.169.254', 'link-local'],
])('%s is refused as %s', (address, kind) => {
  expect(refusedAddress(none, address)).toContain(kind);
});

test.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('public %s passes', (address) => {
  expect(refusedAddress(none, address)).toBeUndefined();
});

test('the operator widens by CIDR, by address and by host name; nothing else moves', () => {
  const policy = parseEgressAllow(' 10.0.0.0/8, 127.0.0.1 ,fd00::/8, mcp.internal, *.corp.example ');
  expect(refusedAddress(policy, '10.9.9.9')).toBeUndefined();
  expect(refusedAddress(policy, '127.0.0.1')).toBeUndefined();
  expect(refusedAddress(policy, '127.0.0.2')).toContain('loopback');
  expect(refusedAddress(policy, 'fd00:ec2::254')).toBeUndefined();
  expect(refusedAddress(policy, '169.254.169.254')).toContain('link-local');
  expect(isHostAllowedByOperator(policy, 'MCP.internal.')).toBe(true);
  expect(isHostAllowedByOperator(policy, 'a.corp.example')).toBe(true);
  expect(isHostAllowedByOperator(policy, 'corp.example')).toBe(false);
  expect(isHostAllowedByOperator(policy, 'evil-mcp.internal')).toBe(false);
});

test('a bad entry is an error naming the variable and the entry', () => {
  expect(() => parseEgressAllow('10.0.0.0/99')).toThrow(/BAREAGENT_WORKER_EGRESS_ALLOW: "10.0.0.0\/99"/);
  expect(() => parseEgressAllow('http://x')).toThrow(/BAREAGENT_WORKER_EGRESS_ALLOW: "http:\/\/x"/);
});

describe('resolveAllowed', () => {
  afterEach(() => setEgressResolver(undefined));

  test('a name is judged by its addresses: the first allowed one is what the caller connects to', async () => {
    setEgressResolver(async () => [
      { address: '127.0.0.1', family: 4 },
      { address: '93.184.215.14', family: 4 },
    ]);
    await expect(resolveAllowed('mixed.example', none)).resolves.toEqual({ address: '93.184.215.14', family: 4 });
    setEgressResolver(async () => [{ address: '10.0.0.5', family: 4 }]);
    await expect(resolveAllowed('inside.example', none)).rejects.toThrow(/does not connect to inside\.example \(10\.0\.0\.5 is a private address\)/);
  });

  test('literal addresses, bracketed v6 included, are checked without DNS', async () => {
    await expect(resolveAllowed('[::1]', none)).rejects.toThrow(/::1 is a loopback address/);
    await expect(resolveAllowed('169.254.169.254', none)).rejects.toThrow(/link-local/);
  });
});
