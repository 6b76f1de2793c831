/**
 * Saves text as a file from an extension page: a blob URL and a temporary
 * `<a download>` click. No network request (DESIGN.md §3.7) and no
 * `downloads` permission needed.
 */
export function downloadText(content: string, mime: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: mime }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoke after the click has been handled; the download keeps its own reference.
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}
