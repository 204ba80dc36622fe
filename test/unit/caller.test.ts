import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddressResolver, parseTrustedProxies } from '../../adapters/http/caller.js';
import { ConfigError, loadConfig } from '../../adapters/main/config.js';

const request = (peer: string, forwardedFor?: string) =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

describe('which address a request counts against', () => {
  it('is the socket peer by default, whatever X-Forwarded-For says; IPv4 on a dual-stack socket counts as IPv4', () => {
    const of = clientAddressResolver();
    expect(of(request('203.0.113.5', '10.9.9.9'))).toBe('203.0.113.5');
    expect(of(request('::ffff:203.0.113.5'))).toBe('203.0.113.5');
  });

  it("believes a trusted proxy's X-Forwarded-For from the right, past further trusted proxies, and no further than the first untrusted entry", () => {
    const of = clientAddressResolver(parseTrustedProxies('10.0.0.0/8, fd00::/8 192.0.2.1'));
    expect(of(request('10.0.0.2', '198.51.100.7'))).toBe('198.51.100.7');
    expect(of(request('::ffff:10.0.0.2', '198.51.100.7, 10.3.3.3, 192.0.2.1'))).toBe('198.51.100.7');
    expect(of(request('fd00::1', '2001:db8::5'))).toBe('2001:db8::5');
    expect(of(request('10.0.0.2', 'spoofed-by-client, 198.51.100.7'))).toBe('198.51.100.7');
    expect(of(request('10.0.0.2', '1.2.3.4, not-an-address'))).toBe('10.0.0.2');
    expect(of(request('10.0.0.2'))).toBe('10.0.0.2'); // a proxy that names no client is the client
    expect(of(request('198.51.100.9', '10.0.0.2'))).toBe('198.51.100.9'); // an untrusted peer
  });

  it('refuses a trusted-proxy entry that is no address or range', () => {
    expect(() => parseTrustedProxies('10.0.0.0/33')).toThrow(/"10.0.0.0\/33" is not an IP address or CIDR range/);
    expect(() => parseTrustedProxies('proxy.internal')).toThrow(/not an IP address/);
    expect(parseTrustedProxies('')).toEqual([]);
    expect(() => loadConfig({ VAULT_TRUSTED_PROXIES: '10.0.0.1, lb.internal' })).toThrow(/VAULT_TRUSTED_PROXIES: "lb.internal" is not an IP address/);
    expect(loadConfig({ VAULT_TRUSTED_PROXIES: '10.0.0.1, fd00::/8' }).trustedProxies).toEqual(['10.0.0.1', 'fd00::/8']);
    expect(loadConfig({}).trustedProxies).toEqual([]);
  });

  it('refuses a metrics token too short to guess at, and a connection cap of 0', () => {
    expect(() => loadConfig({ VAULT_METRICS_TOKEN: 'short' })).toThrow(/VAULT_METRICS_TOKEN: must be at least 16 characters/);
    expect(() => loadConfig({ VAULT_MAX_CONNECTIONS: '0' })).toThrow(ConfigError);
    expect(loadConfig({}).maxConnections).toBe(1024);
  });
});
