export interface ChromiumBuild {
  executablePath: string;
  /** Extra environment for the browser process: its own TMPDIR, and the npm build's fonts. */
  env: Record<string, string>;
  source: 'debian' | 'npm';
}

export declare const CHROMIUM_ARGS: readonly string[];

/** `unpackDir`: where the npm build is unpacked when Debian's is missing (about 200 MB). */
export declare function findChromium(unpackDir: string): Promise<ChromiumBuild>;
