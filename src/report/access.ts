import type { TargetAccess } from './types.js';

/**
 * "Reached through the proxy http://proxy:3128 (HTTPS_PROXY, with credentials); gateway headers
 * X-Tenant (values not recorded); client certificate CN=ci (SHA-256 AB:CD:…)": how the target was
 * reached, for every human format. Reports made without any of it have no access and no line.
 */
export function accessLine(access: TargetAccess): string {
  const parts: string[] = [];
  const { proxy } = access;
  if (proxy !== undefined) parts.push(`through the proxy ${proxy.url} (${proxy.from}${proxy.credentials ? ', with credentials' : ''}), every request tunnelled with CONNECT`);
  if (access.noProxy !== undefined) parts.push(`direct, as ${access.noProxy} asks, although a proxy was set`);
  if (access.headers !== undefined && access.headers.length > 0) parts.push(`with the gateway header${access.headers.length === 1 ? '' : 's'} ${access.headers.join(', ')} on every request (values not recorded)`);
  const cert = access.clientCertificate;
  if (cert !== undefined) parts.push(`with the client certificate ${cert.subject} (SHA-256 ${cert.fingerprint256})`);
  return `Reached ${parts.join('; ')}`;
}
