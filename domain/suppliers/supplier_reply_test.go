package suppliers

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
)

func TestAReplysFileFindsItsLineByItemCode(t *testing.T) {
	box := ReplyLine{ID: uuid.New(), ItemCode: "BOX-12"}
	bigBox := ReplyLine{ID: uuid.New(), ItemCode: "BOX-123"}
	tape := ReplyLine{ID: uuid.New(), ItemCode: "TAPE 5"}
	lines := []ReplyLine{box, bigBox, tape}
	line := func(l *ReplyLine) uuid.UUID {
		if l == nil {
			return uuid.Nil
		}
		return l.ID
	}

	assert.Equal(t, box.ID, line(MatchLine(lines, "Deklaracja_box-12.pdf", "")), "a code in the file name, any case")
	assert.Equal(t, bigBox.ID, line(MatchLine(lines, "BOX-123.pdf", "")), "a longer code is not its prefix's")
	assert.Equal(t, tape.ID, line(MatchLine(lines, "scan.pdf", "Re: TAPE 5 karta")), "the subject when the name says nothing")
	assert.Equal(t, box.ID, line(MatchLine(lines, "BOX-12.pdf", "Re: TAPE 5")), "the name wins over the subject")
	assert.Equal(t, uuid.Nil, line(MatchLine(lines, "BOX-12 and BOX-123.pdf", "")), "two lines named: a person decides")
	assert.Equal(t, uuid.Nil, line(MatchLine(lines, "scan.pdf", "Re: Prośba o dane")), "nothing named")
	assert.Equal(t, uuid.Nil, line(MatchLine([]ReplyLine{box, {ID: uuid.New(), ItemCode: "BOX-12"}}, "BOX-12.pdf", "")),
		"two lines of the same item cannot be told apart")
	assert.Equal(t, tape.ID, line(MatchLine([]ReplyLine{tape}, "scan.pdf", "")), "the only line of a request")
	assert.Nil(t, MatchLine(nil, "scan.pdf", ""))
}
