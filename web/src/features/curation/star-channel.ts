import { createContext, useContext, useEffect, useRef } from 'react';

/**
 * The star's channel to the view around it: the lightbox's S key presses the star its actions show
 * (a Saved work's, or the one the lightbox reads for Create and the Library). The lightbox provides
 * the channel; the star shown in it registers its toggle while it is shown.
 */
export interface StarChannel {
  /** Presses the star shown; undefined while none is. */
  toggle: (() => void) | undefined;
}

export const StarChannelContext = createContext<StarChannel | undefined>(undefined);

/** A channel for a view's star (the lightbox's), kept for the view's life. */
export function useStarChannel(): StarChannel {
  return useRef<StarChannel>({ toggle: undefined }).current;
}

/** Registers `toggle` with the view's channel, if the star sits in one, while it is shown. */
export function useRegisterStar(toggle: () => void): void {
  const channel = useContext(StarChannelContext);
  const latest = useRef(toggle);
  latest.current = toggle;
  useEffect(() => {
    if (!channel) return;
    const press = () => latest.current();
    channel.toggle = press;
    return () => {
      if (channel.toggle === press) channel.toggle = undefined;
    };
  }, [channel]);
}
