/**
 * A problem the person running `csg` can fix (bad flag, missing file, bad input
 * line, invalid pack): printed as one line `csg: <message>`, exit status 2.
 */
export class UsageError extends Error {
  override name = 'UsageError';
}
