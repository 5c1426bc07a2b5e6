import { Component, type ErrorInfo, type ReactNode } from 'react';

/**
 * One page's failure stays on that page (issue 37: a render loop on Saved works emptied the whole
 * app, header and navigation included). The shell keys this boundary by path, so moving to another
 * page, or back, starts afresh; Try again re-renders the same page.
 */
export class PageErrorBoundary extends Component<{ children: ReactNode }, { error?: Error }> {
  override state: { error?: Error } = {};

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    // Kept in the console for a bug report: the page itself shows a plain message.
    console.error('This page failed:', error, info.componentStack);
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="page" role="alert">
        <h1 className="page-title">This page could not be shown</h1>
        <p>
          Something went wrong while drawing it ({this.state.error.message}). The rest of Atelier works: use
          the navigation above, or try this page again.
        </p>
        <p>
          <button type="button" className="button" onClick={() => this.setState({ error: undefined })}>
            Try again
          </button>
        </p>
      </div>
    );
  }
}
