package hub

// Version is this library's version, sent in the User-Agent of every request.
const Version = "0.1.0"

const userAgent = "gaming-hub-client-go/" + Version
