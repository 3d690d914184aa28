package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// feed plays an engine: pieces appended one token at a time, the stop
// search done as the engines do it, and Final with the response text.
func feed(pieces []string, stops []string) (deltas []string, text string) {
	s := NewTextStream(func(d string) { deltas = append(deltas, d) }, stops)
	var out []byte
	for _, p := range pieces {
		out = append(out, p...)
		cut := -1
		for _, st := range stops {
			if i := strings.Index(string(out), st); i >= 0 && (cut < 0 || i < cut) {
				cut = i
			}
		}
		if cut >= 0 {
			out = out[:cut]
			break
		}
		s.Update(out)
	}
	text = strings.ToValidUTF8(string(out), "\uFFFD")
	s.Final(text)
	return deltas, text
}

func TestTextStream(t *testing.T) {
	for _, tt := range []struct {
		name   string
		pieces []string
		stops  []string
		want   []string // the deltas
	}{
		{"plain", []string{"Once", " upon", " a"}, nil, []string{"Once", " upon", " a"}},
		{"stop split over tokens is never sent", []string{"Hello", " Qu", "estion:", " x"}, []string{"Question:"}, []string{"Hello", " "}},
		{"a stop's prefix that was not a stop is sent late", []string{"a", " Q", "uick"}, []string{"Question:"}, []string{"a", " ", "Quick"}},
		{"multi-byte character split over tokens", []string{"中", "\xe6\x96", "\x87", "!"}, nil, []string{"中", "文", "!"}},
		{"an invalid run becomes one U+FFFD, as in the text", []string{"a\xff", "\xfeb"}, nil, []string{"a", "\uFFFDb"}},
		{"the tail held at the end is sent by Final", []string{"x", "\n\n"}, []string{"\n\nQ:"}, []string{"x", "\n\n"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			deltas, text := feed(tt.pieces, tt.stops)
			if strings.Join(deltas, "") != text {
				t.Errorf("deltas %q do not join to the text %q", deltas, text)
			}
			if strings.Join(deltas, "|") != strings.Join(tt.want, "|") {
				t.Errorf("deltas %q, want %q", deltas, tt.want)
			}
		})
	}
}

func TestStreamEmitFailureCancels(t *testing.T) {
	boom := errors.New("client went away")
	cancelled := make(chan struct{})
	_, err := Stream(context.Background(), func(string) error { return boom },
		func(ctx context.Context, onText func(string)) (Response, error) {
			onText("a")
			<-ctx.Done() // generation stops only when cancelled
			close(cancelled)
			return Response{}, ctx.Err()
		})
	if !errors.Is(err, boom) {
		t.Errorf("err %v, want the emit error", err)
	}
	<-cancelled
}

func TestStreamOrder(t *testing.T) {
	var got strings.Builder
	resp, err := Stream(context.Background(), func(d string) error { got.WriteString(d); return nil },
		func(ctx context.Context, onText func(string)) (Response, error) {
			for _, p := range []string{"a", "b", "c", "d"} {
				onText(p)
			}
			return Response{Text: "abcd"}, nil
		})
	if err != nil || got.String() != "abcd" || resp.Text != "abcd" {
		t.Errorf("got %q, resp %q, err %v", got.String(), resp.Text, err)
	}
}
