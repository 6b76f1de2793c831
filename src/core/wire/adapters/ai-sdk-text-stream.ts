/**
 * The Vercel AI SDK text stream (any version; WIRE-FORMATS-2.md §1.7): the
 * answer as raw UTF-8, no framing, no terminator and no error channel. Each
 * network chunk is a frame whose whole text is the next delta of one channel;
 * any rewrite is valid. A block just ends the body (the stream closes), which
 * is all this protocol has.
 */
import { PassageFramer } from '../framing/structural-framer.ts';
import { type WireAdapter, passThrough } from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';

export const aiSdkTextStream: WireAdapter = {
  ...recognisers.aiSdkTextStream,
  createFramer: () => new PassageFramer('text'),
  open: () => ({
    decode: (frame) =>
      frame.raw.length === 0
        ? passThrough(frame)
        : {
            frame,
            slots: [{ channel: 'text', mode: 'delta', text: frame.raw }],
            render: (texts) => texts[0] as string,
          },
    blockEnding: () => '',
  }),
};
