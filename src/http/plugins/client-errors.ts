import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError } from 'fastify';
import type { ConnectionLimits } from '../../config.js';
import { ApiError } from '../../errors.js';
import { mediaType } from '../../jsonapi/document.js';
import { errorDocument } from '../../jsonapi/errors.js';
import type { Logger } from '../../log.js';
import type { CrossOriginHeaders } from './cross-origin.js';

/**
 * Answers the errors Node's HTTP server meets on a connection before any request reaches Fastify
 * (malformed framing, headers over the size limit, a request that does not arrive in time) with a
 * JSON:API error document like every other answer, with the CORS headers of the request's origin
 * when it is known, then closes the connection: after a framing error nothing more on it can be
 * trusted to start a request.
 */
export class ClientErrorAnswers {
  /** The latest response of each connection, so an error never writes into one under way. */
  private readonly responses = new WeakMap<Socket, ServerResponse>();

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly log: Logger,
    private readonly crossOrigin: CrossOriginHeaders,
  ) {}

  /** Follows the responses of the server's connections; call it once the server exists. */
  watch(server: Server): void {
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      this.responses.set(request.socket, response);
    });
  }

  /** Fastify's `clientErrorHandler`. */
  readonly handle = (error: ConnectionError, socket: Socket): void => {
    // A reset connection has gone: there is no one to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const apiError = this.apiErrorOf(error);
    // Code and status only: the error also carries the raw bytes received, which may hold a token.
    this.log.info({ status: apiError.status, code: error.code }, 'client error');
    const response = this.responses.get(socket);
    if (!socket.writable || (response?.headersSent === true && !response.writableFinished)) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify(errorDocument(apiError));
    const corsLines = Object.entries(this.crossOrigin(originOf(error, response))).map(([name, value]) => `${name}: ${value}`);
    const head = [
      `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status] ?? 'Error'}`,
      `Content-Type: ${mediaType}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      ...corsLines,
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
  };

  private apiErrorOf(error: ConnectionError): ApiError {
    const { headersTimeoutMs, requestTimeoutMs } = this.limits;
    switch (error.code) {
      case 'ERR_HTTP_REQUEST_TIMEOUT':
        return new ApiError(408, {
          code: 'request_timeout',
          detail: `The request did not arrive in time: its headers may take ${seconds(headersTimeoutMs)}, the whole request ${seconds(requestTimeoutMs)}.`,
        });
      case 'HPE_HEADER_OVERFLOW':
        return new ApiError(431, {
          code: 'headers_too_large',
          detail: `The request line and headers are larger than ${maxHeaderSize / 1024} KiB.`,
        });
      case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
        return new ApiError(413, { code: 'payload_too_large', detail: 'The chunk extensions of the request body are too large.' });
      case 'HPE_INVALID_CONTENT_LENGTH':
      case 'HPE_UNEXPECTED_CONTENT_LENGTH':
        return new ApiError(400, {
          code: 'invalid_content_length',
          detail: 'The Content-Length header must be one length in digits, and not sent beside Transfer-Encoding.',
        });
      default: {
        // The parser's reason is a fixed sentence of its own (never the bytes it read).
        const reason = 'reason' in error && typeof error.reason === 'string' ? ` (${error.reason})` : '';
        return new ApiError(400, { code: 'malformed_request', detail: `The request is not valid HTTP/1.1${reason}.` });
      }
    }
  }
}

/**
 * The Origin header of the request that failed, when it can be known: a request whose headers
 * arrived and whose answer has not begun (its body is late) has its own; for an error met while
 * the headers were being read (431, malformed framing) Node gives only the bytes it was reading,
 * which hold the Origin line when it came in the same read. Only an allowed origin is ever echoed.
 */
function originOf(error: ConnectionError, response: ServerResponse | undefined): string | undefined {
  if (response !== undefined && !response.headersSent) return response.req.headers.origin;
  const read = (error as ConnectionError & { rawPacket?: unknown }).rawPacket;
  if (!Buffer.isBuffer(read)) return undefined;
  const text = read.toString('latin1');
  const headEnd = text.indexOf('\r\n\r\n');
  return /(?:^|\r\n)origin:[ \t]*(\S+)[ \t]*\r\n/i.exec(headEnd < 0 ? text : text.slice(0, headEnd + 2))?.[1];
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}
