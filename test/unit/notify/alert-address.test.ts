import { describe, expect, it } from 'vitest';
import { addressProblem } from '../../../src/notify/alert-address.js';

const HOOKS = ['https://hooks.slack.com/services/', 'https://chat.example.com:8443/in'];

describe('addressProblem', () => {
  it('admits any http(s) address while the list is empty', () => {
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
