/**
 * Where the results sit below the form (one column, a phone): a strip stuck with Generate says
 * what is rendering and scrolls to the cards. Hidden by CSS where the cards are beside the form.
 */
export function RenderingStrip({ running }: { running: number }) {
  return (
    <button
      type="button"
      className="rendering-strip"
      onClick={() => {
        const heading = document.getElementById('tasks-heading');
        heading?.scrollIntoView({ block: 'start' });
        heading?.focus({ preventScroll: true });
      }}
    >
      Rendering {running} {running === 1 ? 'image' : 'images'}…<span className="rendering-view">View</span>
    </button>
  );
}
