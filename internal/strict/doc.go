// Package strict is how every Zap document is read: the declaration,
// observations, a plan, an event line, and the front end's own files under
// ~/.zap. One reading serves them all, so they refuse the same things in the
// same words:
//
//   - CheckFormat: "format" is the document's first field, with the wanted
//     value;
//   - canon.Check: no null (but where the caller allows it), no key given
//     twice, strings of UTF-8 text, within a document's limits;
//   - Decode, or Fields one object at a time: no unknown field (a key must
//     match a field's JSON name exactly, case included), no value of the
//     wrong JSON type, a required field present, every error naming the
//     field's full path (resources[0] (hello).mode).
//
// Read runs the three in that order. A type that decodes itself implements
// FieldDecoder, so its errors name where it sits in the document; Tagged
// is such a decoder read off the struct's JSON tags.
package strict

import "github.com/zap-go/zap/pkg/canon"

// Read reads the document data into v: its format (want), then
// canon.Check with allowNull (which may be nil), then Decode. An error
// canon.Check finds inside an element of one of lists (paths of lists of
// objects with an "id", such as "resources") names the element by its id
// as Decode's errors do.
func Read(data []byte, want string, allowNull func(path string) bool, v any, lists ...string) error {
	if err := CheckFormat(data, want); err != nil {
		return err
	}
	if err := canon.Check(data, allowNull); err != nil {
		return NameByID(err, data, lists...)
	}
	return DecodeChecked(data, v)
}
