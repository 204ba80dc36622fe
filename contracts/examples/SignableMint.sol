// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

import {Signable} from "../Signable.sol";

/// An example: a mint that only a vault signature releases, with the signer rotated by an owner.
/// The vault signs `mint(to, amount, sig)` with the ABI item of this function; the caller (msg.sender)
/// must be the `sender` named in the sign request.
contract SignableMint is Signable {
    address public immutable owner;
    mapping(address => uint256) public balanceOf;

    constructor(address signer_, bytes32 uniq_) Signable(signer_, uniq_) {
        owner = msg.sender;
    }

    function setSigner(address next) external {
        require(msg.sender == owner, "SignableMint: not owner");
        _setSigner(next);
    }

    function mint(address to, uint256 amount, Signature calldata sig) external {
        _verify(abi.encode(msg.sig, to, amount), sig);
        balanceOf[to] += amount;
    }
}
