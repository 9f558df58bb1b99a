import { describe, expect, it } from 'vitest';
import { addressProblem, addressRefusal } from '../../../src/notify/alert-address.js';
import { fakeResolver, testGuard } from '../../support/address-guard.js';

const HOOKS = ['https://hooks.slack.com/services/', 'https://chat.example.com:8443/in'];

describe('addressProblem', () => {
  it('admits any http(s) address while the list is empty (the address policy is apart)', () => {
    expect(addressProblem('http://10.0.0.1/anything', [])).toBeUndefined();
  });

  it.each([
    'https://hooks.slack.com/services/T0/B0/xyz',
    'https://HOOKS.slack.com:443/services/T0',
    'https://chat.example.com:8443/in',
    'https://chat.example.com:8443/in/room?key=1',
  ])('admits %s under a prefix (normalised scheme, host, port and path)', (address) => {
    expect(addressProblem(address, HOOKS)).toBeUndefined();
  });

  it.each([
    ['http://hooks.slack.com/services/T0/B0/s3cret', 'http://hooks.slack.com/…'],
    ['https://hooks.slack.com/servicesX/s3cret', 'https://hooks.slack.com/…'],
    ['https://hooks.slack.com/services/../admin/s3cret', 'https://hooks.slack.com/…'],
    ['https://chat.example.com/in/s3cret', 'https://chat.example.com/…'],
    ['https://169.254.169.254/latest/meta-data?s3cret=1', 'https://169.254.169.254/…'],
  ])('refuses %s, naming %s only', (address, named) => {
    const problem = addressProblem(address, HOOKS);
    expect(problem).toBe(
      `address: ${named} is not admitted by the gateway's notifications.allowedUrlPrefixes`,
    );
    expect(problem).not.toContain('s3cret');
  });

  it('refuses what is not a URL without quoting it', () => {
    expect(addressProblem('not a url s3cret', HOOKS)).toBe('address: is not a URL');
  });
});

describe('addressRefusal', () => {
  const guard = (prefixes: string[]) =>
    testGuard(prefixes, {
      resolve: fakeResolver({
        'hooks.internal': ['127.0.0.1'],
        'hooks.example': ['93.184.216.34'],
      }),
      servers: { management: ['https://127.0.0.1:6443'] },
      setting: 'notifications.allowedUrlPrefixes',
    });
  const hint =
    'which only an entry of notifications.allowedUrlPrefixes naming that IP address opens';

  it.each([
    ['http://127.0.0.1:8080/hooks/s3cret', 'http://127.0.0.1:8080/… is a loopback address'],
    [
      'http://169.254.169.254/latest/meta-data?s3cret=1',
      'http://169.254.169.254/… is a cloud metadata address',
    ],
    ['https://10.20.0.4/services/s3cret', 'https://10.20.0.4/… is a private address'],
    [
      'https://bot:s3cret@hooks.internal/in/s3cret',
      'https://hooks.internal/… resolves to a loopback address',
    ],
    [
      'https://127.0.0.1:6443/api/v1/s3cret',
      'https://127.0.0.1:6443/… is the API server of a cluster the gateway reaches',
    ],
  ])('refuses %s by default, naming the host and class only', async (address, sentence) => {
    const refused = await addressRefusal(address, guard([]));
    expect(refused).toBe(`address: ${sentence}, ${hint}`);
    expect(refused).not.toContain('s3cret');
  });

  it('lets a public address through, and one an allow-list entry writes', async () => {
    expect(await addressRefusal('https://hooks.example/in', guard([]))).toBeUndefined();
    const opened = guard(['http://127.0.0.1:8080/hooks/']);
    expect(await addressRefusal('http://127.0.0.1:8080/hooks/a', opened)).toBeUndefined();
    expect(await addressRefusal('https://hooks.internal/in', opened)).toMatch(/loopback/);
  });
});
