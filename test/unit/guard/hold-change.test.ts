/**
 * The "holding" signal for the in-page indicator (issue 4): edge-triggered
 * callbacks from the text guard transform and the wire rewriter. They report
 * the guard's state; they never release anything (DESIGN.md §3.4).
 */
import { describe, expect, it } from 'vitest';
import { createGuardTransform } from '../../../src/core/guard/guard-stream.ts';
import { StreamGuard } from '../../../src/core/guard/stream-guard.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { openAiChatStream } from '../../../src/core/wire/adapters/openai-chat.ts';
import { StreamRewriter } from '../../../src/core/wire/stream-rewriter.ts';
import { engineTestPack } from '../../support/engine-test-pack.ts';

const pack = compilePack(engineTestPack);

async function runTransform(chunks: string[], onHoldChange: (holding: boolean) => void) {
  const marks: string[] = [];
  const transform = createGuardTransform(pack, {
    onHoldChange: (holding) => {
      marks.push(`hold:${holding}`);
      onHoldChange(holding);
    },
  });
  const writer = transform.writable.getWriter();
  const reader = transform.readable.getReader();
  const read = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      marks.push(`out:${value}`);
    }
  })();
  for (const chunk of chunks) await writer.write(chunk);
  await writer.close();
  await read;
  return marks;
}

function sse(content: string): string {
  return `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
}

describe('StreamGuard.heldUnits', () => {
  it('is the input held back after each push, and 0 at the end', () => {
    const guard = new StreamGuard(pack);
    guard.push('see tok_ab');
    expect(guard.heldUnits).toBe('tok_ab'.length);
    guard.push('cd1234 and');
    expect(guard.heldUnits).toBe(0);
    guard.push(' tok_');
    expect(guard.heldUnits).toBe('tok_'.length);
    guard.end();
    expect(guard.heldUnits).toBe(0);
  });
});

describe('createGuardTransform onHoldChange', () => {
  it('reports the start and the end of a hold, once each, around the held text', async () => {
    const calls: boolean[] = [];
    const marks = await runTransform(['a tok_ab', 'cd', '1234 b'], (h) => calls.push(h));
    expect(calls).toEqual([true, false]);
    expect(marks.filter((m) => m.startsWith('out:')).join('|')).toBe('out:a |out:[redacted:tok] b');
  });

  it('never fires when nothing is held', async () => {
    const calls: boolean[] = [];
    await runTransform(['hello ', 'world. '], (h) => calls.push(h));
    expect(calls).toEqual([]);
  });
});

describe('StreamRewriter onHoldChange', () => {
  it('reports while a frame waits for the guard, and isHolding agrees', () => {
    const calls: boolean[] = [];
    const rewriter = new StreamRewriter(openAiChatStream, pack, {
      onHoldChange: (h) => calls.push(h),
    });
    expect(rewriter.push(sse('hello '))).toBe(sse('hello '));
    expect(calls).toEqual([]);
    rewriter.push(sse('tok_ab'));
    expect(rewriter.isHolding).toBe(true);
    expect(calls).toEqual([true]);
    rewriter.push(sse('cd1234 '));
    expect(rewriter.isHolding).toBe(false);
    expect(calls).toEqual([true, false]);
    rewriter.end();
    expect(calls).toEqual([true, false]);
  });
});
