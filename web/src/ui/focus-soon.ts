/**
 * Focuses the element `selector` names, and keeps it from falling to <body> for `ms`: after a change
 * to a windowed grid the card may be drawn a frame or two later, or drawn anew in another row (the
 * node that had focus goes, and focus with it). Each frame, while nothing has focus, it looks again;
 * focus a person moved elsewhere is left alone.
 */
export function focusSoon(selector: string, ms = 1000): void {
  const until = performance.now() + ms;
  const look = () => {
    const active = document.activeElement;
    if (active === null || active === document.body) document.querySelector<HTMLElement>(selector)?.focus();
    if (performance.now() < until) requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}
