/** The MCP server's version (its own module: the discovery document names it without loading the server). */
export const SERVER_VERSION = '0.1.0';
