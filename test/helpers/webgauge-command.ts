/**
 * How a test runs the `webgauge` command in a child process: the build in dist/ when scripts/test.sh has just made it
 * from these sources (it sets WEBGAUGE_TEST_BUILT=1; the build starts in ~0.5 s), otherwise the sources through tsx
 * (~1.2 s), so a test run on its own always runs the code as it is now.
 */
export function webgaugeArgs(args: readonly string[]): string[] {
  return process.env.WEBGAUGE_TEST_BUILT === '1' ? ['dist/main.js', ...args] : ['--import', 'tsx', 'src/main.ts', ...args];
}
