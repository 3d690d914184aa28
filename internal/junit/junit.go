// Package junit writes JUnit XML test reports, the format CI systems show
// as test results: one <testsuite> of <testcase> elements, a failed case
// carrying a <failure>.
package junit

import (
	"encoding/xml"
)

// Case is one test case; Failure is nil when it passed.
type Case struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Failure   *Failure `xml:"failure,omitempty"`
	SystemOut string   `xml:"system-out,omitempty"`
}

// Failure says why a case failed.
type Failure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type suite struct {
	XMLName  xml.Name `xml:"testsuite"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Cases    []Case   `xml:"testcase"`
}

// Marshal renders a test suite of the cases, with the XML header and a
// final newline.
func Marshal(name string, cases []Case) ([]byte, error) {
	s := suite{Name: name, Tests: len(cases), Cases: cases}
	for _, c := range cases {
		if c.Failure != nil {
			s.Failures++
		}
	}
	out, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}
