/**
 * The `exfil-html-img` validator: an HTML `<img>` tag (where a chat site
 * renders HTML) is fetched on render, exactly like a Markdown image, so its
 * `src` gets the `exfil-image` verdict. A `srcset` is a list of more image
 * URLs: fail closed. A tag cut off before its `>` (padding past the rule's
 * bound) is risky. A tag without `src` or `srcset` loads nothing.
 */
import { exfilLinkVerdict } from './exfil-link.ts';

const SRC = /\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i;
const SRCSET = /\ssrcset\s*=/i;

export function exfilHtmlImgVerdict(
  tag: string,
  allowedHosts: readonly string[],
): { risky: boolean; host: string } {
  const m = SRC.exec(tag);
  const src = (m?.[1] ?? m?.[2] ?? m?.[3] ?? '').trim();
  const verdict =
    src === '' ? { risky: false, host: '' } : exfilLinkVerdict(`<${src}>`, allowedHosts, 'image');
  return {
    risky: verdict.risky || !tag.endsWith('>') || SRCSET.test(tag),
    host: verdict.host,
  };
}
