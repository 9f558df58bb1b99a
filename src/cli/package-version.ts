/** The installed package's version, for `--version` of both bins. */
import { readFile } from 'node:fs/promises';
import { packagePath } from '../paths.js';

/** The `version` of the package.json beside the running code. */
export async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(packagePath('package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
