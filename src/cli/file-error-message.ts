/** A short, human description of a file-system error (no stack, no errno number). */
export function fileErrorMessage(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'is a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
      return 'a parent of the path is not a directory';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
