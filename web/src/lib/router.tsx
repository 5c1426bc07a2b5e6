import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

/** A tiny history router: the site has five pages, which does not warrant a routing library. */

const listeners = new Set<() => void>();
function emit() {
  for (const listener of listeners) listener();
}
window.addEventListener('popstate', emit);

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const snapshot = () => window.location.pathname + window.location.search;

/** The current path and query, re-rendering on navigation. */
export function useLocation(): { path: string; search: URLSearchParams } {
  const current = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(current, window.location.origin);
  return { path: url.pathname, search: url.searchParams };
}

/** Goes to a page of the site without reloading. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.scrollTo(0, 0);
  emit();
}

/** An anchor that navigates in-app on a plain click and behaves normally otherwise (new tab, copy link). */
export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    ) {
      return;
    }
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={handle} {...rest} />;
}
