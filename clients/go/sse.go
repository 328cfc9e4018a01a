package hub

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// sseFrame is one Server-Sent Events frame.
type sseFrame struct {
	id, event, data string
	// retry is the reconnection delay (ms) the server asked for; -1 when this frame sets none
	retry int
}

// splitLines splits on "\r\n", "\r" or "\n" (the WHATWG rules). A "\r" at the end of the data may be
// half of a "\r\n": more data is asked for first.
func splitLines(data []byte, atEOF bool) (int, []byte, error) {
	for i, b := range data {
		switch b {
		case '\n':
			return i + 1, data[:i], nil
		case '\r':
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if atEOF {
				return i + 1, data[:i], nil
			}
			return 0, nil, nil
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// readFrames calls frame for every frame of a text/event-stream body until it ends or frame
// returns false; activity is called on every line, comments included (a watchdog's heartbeat).
func readFrames(body io.Reader, activity func(), frame func(sseFrame) bool) error {
	scanner := bufio.NewScanner(body)
	scanner.Buffer(make([]byte, 0, 64*1024), 1<<20)
	scanner.Split(splitLines)
	current, hasData := sseFrame{event: "message", retry: -1}, false
	for scanner.Scan() {
		activity()
		line := scanner.Text()
		if line == "" {
			// a frame without data is only worth telling when it changes the reconnection delay
			if (hasData || current.retry >= 0) && !frame(current) {
				return nil
			}
			current, hasData = sseFrame{event: "message", retry: -1}, false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			if hasData {
				current.data += "\n" + value
			} else {
				current.data = value
			}
			hasData = true
		case "event":
			current.event = value
		case "id":
			if !strings.ContainsRune(value, 0) {
				current.id = value
			}
		case "retry":
			if n, err := strconv.Atoi(value); err == nil && n >= 0 {
				current.retry = n
			}
		}
	}
	return scanner.Err()
}
